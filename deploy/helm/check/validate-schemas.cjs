// Validates rendered manifests against the Kubernetes OpenAPI schemas shipped in kubernetes-models.
const fs = require('fs');
const YAML = require('yaml');
const kinds = {
  'v1/ConfigMap': () => require('kubernetes-models/v1/ConfigMap').ConfigMap,
  'v1/Secret': () => require('kubernetes-models/v1/Secret').Secret,
  'v1/Service': () => require('kubernetes-models/v1/Service').Service,
  'v1/ServiceAccount': () => require('kubernetes-models/v1/ServiceAccount').ServiceAccount,
  'v1/PersistentVolumeClaim': () => require('kubernetes-models/v1/PersistentVolumeClaim').PersistentVolumeClaim,
  'rbac.authorization.k8s.io/v1/Role': () => require('kubernetes-models/rbac.authorization.k8s.io/v1/Role').Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': () => require('kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding').RoleBinding,
  'apps/v1/Deployment': () => require('kubernetes-models/apps/v1/Deployment').Deployment,
  'batch/v1/Job': () => require('kubernetes-models/batch/v1/Job').Job,
  'policy/v1/PodDisruptionBudget': () => require('kubernetes-models/policy/v1/PodDisruptionBudget').PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': () => require('kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler').HorizontalPodAutoscaler,
};
let bad = 0,
  n = 0;
for (const d of YAML.parseAllDocuments(fs.readFileSync(process.argv[2], 'utf8'))) {
  const o = d.toJS();
  if (!o || typeof o !== 'object') continue;
  const Model = kinds[`${o.apiVersion}/${o.kind}`];
  if (!Model) {
    console.log('no schema for', o.apiVersion, o.kind);
    bad++;
    continue;
  }
  try {
    new (Model())(o).validate();
    n++;
  } catch (e) {
    bad++;
    console.log(`${o.kind}/${o.metadata.name}: ${e.message}`);
  }
}
console.log(`${n} objects valid, ${bad} invalid`);
process.exit(bad ? 1 : 0);
