{{/* Names, labels and the per-service pieces every template shares. */}}

{{- define "platform.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's prefix: <release>-<chart>, or the release alone when it already holds the chart name. */}}
{{- define "platform.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The name of one service's objects. Context: dict root name svc. */}}
{{- define "platform.serviceName" -}}
{{- printf "%s-%s" (include "platform.fullname" .root) .name | trunc 57 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every object, but the instance (selector labels carry it where they are used). */}}
{{- define "platform.chartLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/part-of: {{ include "platform.name" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "platform.labels" -}}
{{ include "platform.chartLabels" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Context: dict root name component. */}}
{{- define "platform.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component | default "api" }}
{{- end -}}

{{/* <registry>/<service>:<tag>, or the service's own image. Context: dict root name svc. */}}
{{- define "platform.image" -}}
{{- $image := .svc.image | default dict -}}
{{- $global := .root.Values.global.image -}}
{{- $repository := $image.repository | default (printf "%s/%s" $global.registry .name) -}}
{{- $tag := $image.tag | default $global.tag | default .root.Chart.AppVersion -}}
{{- printf "%s:%s" $repository (toString $tag) -}}
{{- end -}}

{{- define "platform.pullPolicy" -}}
{{- $image := .svc.image | default dict -}}
{{- $image.pullPolicy | default .root.Values.global.image.pullPolicy -}}
{{- end -}}

{{- define "platform.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "platform.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Whether the service's schema is migrated by the pre-install/pre-upgrade Job. */}}
{{- define "platform.migrationJob" -}}
{{- if and .root.Values.global.migrations.enabled .svc.database -}}true{{- end -}}
{{- end -}}

{{/* Whether the service has its own Secret made by the chart (it has secret values and no existingSecret). */}}
{{- define "platform.ownSecret" -}}
{{- if not .svc.existingSecret -}}
{{- range $key, $value := (.svc.secretEnv | default dict) -}}
{{- if $value -}}true{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The envFrom list of a service's containers: common config, own config, common secret, own secret. */}}
{{- define "platform.envFrom" -}}
- configMapRef:
    name: {{ include "platform.fullname" .root }}-common
- configMapRef:
    name: {{ include "platform.serviceName" . }}
- secretRef:
    name: {{ .root.Values.global.existingSecret | default (printf "%s-common" (include "platform.fullname" .root)) }}
{{- if .svc.existingSecret }}
- secretRef:
    name: {{ .svc.existingSecret }}
{{- else if include "platform.ownSecret" . }}
- secretRef:
    name: {{ include "platform.serviceName" . }}
{{- end }}
{{- end -}}

{{- define "platform.probe" -}}
{{- if .grpc -}}
grpc:
  port: {{ .grpc.port }}
  service: {{ .grpc.service | default "" | quote }}
{{- else -}}
httpGet:
  path: {{ .path }}
  port: http
{{- end }}
periodSeconds: {{ .periodSeconds }}
timeoutSeconds: {{ .timeoutSeconds }}
failureThreshold: {{ .failureThreshold }}
{{- end -}}

{{/* Whether the gateway deploys agents to Kubernetes with the chart's RBAC. Context: dict root name svc. */}}
{{- define "platform.kubernetesDeployer" -}}
{{- if and (eq .name "gateway") (eq (dig "env" "GATEWAY_DEPLOYER" "none" .svc) "kubernetes") (dig "kubernetesDeployer" "rbac" true .svc) -}}true{{- end -}}
{{- end -}}

{{/* The service account of a service's API pods: the gateway's own when it deploys to Kubernetes. Context: dict root name svc. */}}
{{- define "platform.podServiceAccountName" -}}
{{- if include "platform.kubernetesDeployer" . -}}
{{- include "platform.serviceName" . -}}
{{- else -}}
{{- include "platform.serviceAccountName" .root -}}
{{- end -}}
{{- end -}}
