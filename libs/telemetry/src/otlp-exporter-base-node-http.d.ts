// The SDK's OTLP/HTTP transport is published under a subpath export, which this repository's
// `moduleResolution: node` does not read; its types are where the package keeps them. The
// transport's factory is meant for exporter authors and has changed between releases: check it
// (server-span-export.ts) when @opentelemetry/otlp-exporter-base moves past 0.223.
declare module '@opentelemetry/otlp-exporter-base/node-http' {
  export * from '@opentelemetry/otlp-exporter-base/build/src/index-node-http';
}
