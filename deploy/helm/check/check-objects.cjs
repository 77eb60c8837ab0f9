// Checks `helm template`-style output: YAML validity (duplicate keys refused), names, selectors,
// references between objects, probes/resources/securityContext on every container.
const fs = require('fs');
const YAML = require('yaml');
const text = fs.readFileSync(process.argv[2], 'utf8');
const docs = YAML.parseAllDocuments(text, { uniqueKeys: true });
const objs = [];
let problems = 0;
const bad = (m) => {
  problems++;
  console.log('PROBLEM:', m);
};
for (const d of docs) {
  if (d.errors.length) {
    bad('YAML: ' + d.errors.map((e) => e.message).join('; '));
    continue;
  }
  const o = d.toJS();
  if (o == null) continue;
  if (typeof o !== 'object' || !o.kind) {
    if (typeof o === 'string') continue;
    bad('doc without kind: ' + JSON.stringify(o).slice(0, 100));
    continue;
  }
  objs.push(o);
}
const names = new Set();
const by = (kind) => objs.filter((o) => o.kind === kind);
for (const o of objs) {
  const n = o.metadata?.name;
  if (!o.apiVersion || !n) bad(`${o.kind} without apiVersion/name`);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(n) || n.length > 63) bad(`bad name ${n}`);
  const key = `${o.kind}/${n}`;
  if (names.has(key)) bad(`duplicate ${key}`);
  names.add(key);
  for (const [k, v] of Object.entries(o.metadata.labels ?? {})) if (typeof v !== 'string' || v.length > 63) bad(`${key} label ${k}=${v}`);
}
const cms = new Set(by('ConfigMap').map((o) => o.metadata.name));
const secrets = new Set(by('Secret').map((o) => o.metadata.name));
const external = new Set((process.argv[3] ?? '').split(',').filter(Boolean));
const checkPod = (key, spec, isJob) => {
  if (!spec.securityContext?.runAsNonRoot) bad(`${key}: pod not runAsNonRoot`);
  for (const c of spec.containers) {
    if (!c.resources?.requests || !c.resources?.limits) bad(`${key}/${c.name}: resources`);
    if (c.securityContext?.allowPrivilegeEscalation !== false || !c.securityContext?.readOnlyRootFilesystem) bad(`${key}/${c.name}: securityContext`);
    if (!isJob && (!c.livenessProbe || !c.readinessProbe)) bad(`${key}/${c.name}: probes`);
    // Readiness is /health/ready over HTTP, or the gRPC health service on a declared container port.
    if (!isJob && c.readinessProbe.httpGet && c.readinessProbe.httpGet.path !== '/health/ready') bad(`${key}: readiness path`);
    if (!isJob && !c.readinessProbe.httpGet && !c.readinessProbe.grpc) bad(`${key}: readiness probe`);
    if (!isJob && c.livenessProbe.httpGet?.path !== '/health/live') bad(`${key}: liveness path`);
    for (const e of c.envFrom ?? []) {
      if (e.configMapRef && !cms.has(e.configMapRef.name)) bad(`${key}: configMap ${e.configMapRef.name} missing`);
      if (e.secretRef && !secrets.has(e.secretRef.name) && !external.has(e.secretRef.name)) bad(`${key}: secret ${e.secretRef.name} missing`);
    }
    const ports = new Set((c.ports ?? []).map((p) => p.name));
    const portNumbers = new Set((c.ports ?? []).map((p) => p.containerPort));
    for (const p of [c.livenessProbe, c.readinessProbe, c.startupProbe].filter(Boolean)) {
      if (p.httpGet && !ports.has(p.httpGet.port)) bad(`${key}: probe port ${p.httpGet.port}`);
      if (p.grpc && !portNumbers.has(p.grpc.port)) bad(`${key}: gRPC probe port ${p.grpc.port} is not a container port`);
    }
    for (const v of c.volumeMounts ?? []) if (!(spec.volumes ?? []).some((vol) => vol.name === v.name)) bad(`${key}: volume ${v.name}`);
  }
  for (const vol of spec.volumes ?? [])
    if (vol.persistentVolumeClaim && !by('PersistentVolumeClaim').some((c) => c.metadata.name === vol.persistentVolumeClaim.claimName) && !external.has(vol.persistentVolumeClaim.claimName))
      bad(`${key}: claim ${vol.persistentVolumeClaim.claimName} missing`);
};
for (const d of by('Deployment')) {
  const key = `Deployment/${d.metadata.name}`;
  const sel = d.spec.selector.matchLabels;
  const tl = d.spec.template.metadata.labels;
  for (const [k, v] of Object.entries(sel)) if (tl[k] !== v) bad(`${key}: selector ${k} not on template`);
  if (d.spec.template.spec.serviceAccountName && !by('ServiceAccount').some((s) => s.metadata.name === d.spec.template.spec.serviceAccountName))
    bad(`${key}: SA missing`);
  checkPod(key, d.spec.template.spec, false);
}
for (const s of by('Service')) {
  const matches = by('Deployment').filter((d) => Object.entries(s.spec.selector).every(([k, v]) => d.spec.template.metadata.labels[k] === v));
  if (matches.length !== 1) bad(`Service/${s.metadata.name} selects ${matches.length} deployments`);
  for (const p of s.spec.ports)
    if (!matches[0]?.spec.template.spec.containers[0].ports.some((cp) => cp.name === p.targetPort))
      bad(`Service/${s.metadata.name}: targetPort ${p.targetPort}`);
}
for (const j of by('Job')) {
  const key = `Job/${j.metadata.name}`;
  if (!/pre-install/.test(j.metadata.annotations?.['helm.sh/hook'] ?? '')) bad(`${key}: not a hook`);
  checkPod(key, j.spec.template.spec, true);
  for (const c of j.spec.template.spec.containers)
    for (const e of c.envFrom ?? [])
      if (e.secretRef && !external.has(e.secretRef.name)) {
        const sec = by('Secret').find((s) => s.metadata.name === e.secretRef.name);
        if (!/pre-install/.test(sec?.metadata.annotations?.['helm.sh/hook'] ?? ''))
          bad(`${key}: reads secret ${e.secretRef.name} that is not a hook (absent at pre-install)`);
      }
}
// A RoleBinding binds a rendered Role, in its own namespace, to a rendered ServiceAccount.
for (const b of by('RoleBinding')) {
  const role = by('Role').find((r) => r.metadata.name === b.roleRef.name && r.metadata.namespace === b.metadata.namespace);
  if (b.roleRef.kind === 'Role' && !role) bad(`RoleBinding/${b.metadata.name}: Role ${b.roleRef.name} missing in ${b.metadata.namespace}`);
  for (const s of b.subjects ?? [])
    if (s.kind === 'ServiceAccount' && !by('ServiceAccount').some((a) => a.metadata.name === s.name)) bad(`RoleBinding/${b.metadata.name}: ServiceAccount ${s.name} missing`);
}
for (const h of by('HorizontalPodAutoscaler')) {
  const d = by('Deployment').find((x) => x.metadata.name === h.spec.scaleTargetRef.name);
  if (!d) bad(`HPA ${h.metadata.name}: target missing`);
  else if (d.spec.replicas !== undefined) bad(`HPA ${h.metadata.name}: deployment also sets replicas`);
}
console.log(objs.map((o) => `${o.kind}/${o.metadata.name}`).join('\n'));
console.log(problems ? `${problems} problem(s)` : 'no problems');
process.exit(problems ? 1 : 0);
