// Manifests validated per second on one core (this process, one thread), for the corpus'
// typical and maximal manifests: from parsed objects (what a service holding a request body does),
// from YAML and JSON text (what the CLI and the registry's publish do), and signed maximal ones.
// Run: npm run bench:manifest   (target: >= 5,000 typical manifests per second)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { validateManifest } from '@platform/manifest';

const CORPUS = join(__dirname, '..', '..', 'libs', 'manifest', 'corpus', 'valid');
const TARGET_PER_SECOND = 5000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);

function load(name: string) {
  const yaml = readFileSync(join(CORPUS, name), 'utf8');
  const object = YAML.parse(yaml) as object;
  return { yaml, json: JSON.stringify(object), object };
}

/** Runs `work` repeatedly for SECONDS after a warm-up; returns validations per second. */
function measure(work: () => boolean): { perSecond: number; microseconds: number } {
  for (let i = 0; i < 2000; i++) work();
  let count = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(SECONDS * 1e9);
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 200; i++) if (!work()) throw new Error('benchmark manifest did not validate');
    count += 200;
    now = process.hrtime.bigint();
  }
  const seconds = Number(now - start) / 1e9;
  return { perSecond: count / seconds, microseconds: (seconds * 1e6) / count };
}

const cases = (() => {
  const typical = load('typical.yaml');
  const maximal = load('maximal.yaml');
  const signed = load('signed-ed25519.yaml');
  const signedEcdsa = load('signed-ecdsa.yaml');
  return [
    ['typical, object', () => validateManifest(typical.object).valid],
    ['typical, JSON text', () => validateManifest(typical.json).valid],
    ['typical, YAML text', () => validateManifest(typical.yaml).valid],
    ['maximal, object', () => validateManifest(maximal.object).valid],
    ['maximal, JSON text', () => validateManifest(maximal.json).valid],
    ['maximal, YAML text', () => validateManifest(maximal.yaml).valid],
    ['maximal + checksum + Ed25519 signature, object', () => validateManifest(signed.object).valid],
    ['maximal + checksum + ECDSA P-256 signature, object', () => validateManifest(signedEcdsa.object).valid],
  ] as const;
})();

console.log(`manifest validation, one core, ${SECONDS}s per case (node ${process.version})\n`);
console.log(`${'case'.padEnd(52)} ${'per second'.padStart(12)} ${'µs each'.padStart(10)}`);
const results = new Map<string, number>();
for (const [name, work] of cases) {
  const { perSecond, microseconds } = measure(work);
  results.set(name, perSecond);
  console.log(`${name.padEnd(52)} ${Math.round(perSecond).toLocaleString('en-US').padStart(12)} ${microseconds.toFixed(1).padStart(10)}`);
}
// The target holds for every input form, so the verdict takes the slowest typical case.
const typicalRate = Math.min(...[...results].filter(([name]) => name.startsWith('typical')).map(([, rate]) => rate));
const verdict = typicalRate >= TARGET_PER_SECOND ? 'meets' : 'MISSES';
console.log(
  `\nslowest typical case: ${Math.round(typicalRate).toLocaleString('en-US')}/s ${verdict} the target of ${TARGET_PER_SECOND.toLocaleString('en-US')}/s`,
);
if (typicalRate < TARGET_PER_SECOND) process.exitCode = 1;
