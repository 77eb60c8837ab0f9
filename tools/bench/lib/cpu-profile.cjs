// Preloaded into a spawned service (NODE_OPTIONS=--require ...) to write a V8 CPU profile of it to
// CPU_PROFILE_DIR when it exits: `--cpu-prof` itself is not allowed in NODE_OPTIONS.
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.on('exit', () => {
    // In-thread sessions answer synchronously, so this completes inside the exit handler.
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `service-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
