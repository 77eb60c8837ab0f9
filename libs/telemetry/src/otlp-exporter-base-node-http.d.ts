// The SDK's OTLP/HTTP transport is published under a subpath export, which this repository's
// `moduleResolution: node` does not read; its types are where the package keeps them.
declare module '@opentelemetry/otlp-exporter-base/node-http' {
  export * from '@opentelemetry/otlp-exporter-base/build/src/index-node-http';
}
