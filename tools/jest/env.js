// Every test process: quiet logs, no span export, and no real-world network beyond loopback.
process.env.LOG_LEVEL ??= 'silent';
process.env.OTEL_SDK_DISABLED = 'true';
process.env.NODE_ENV ??= 'test';
