// Every test process: quiet logs, no span export, and no real-world network beyond loopback.
process.env.LOG_LEVEL ??= 'silent';
process.env.OTEL_SDK_DISABLED = 'true';
process.env.NODE_ENV ??= 'test';
// No scheduled tracing retention from test processes or the services they start (they inherit
// this): a new schedule's first run starts at once, then hourly, in whichever test process takes
// it, and would race the retention tests' settings. The one test of the schedule sets its own.
process.env.TRACING_RETENTION_INTERVAL_MS ??= '0';
