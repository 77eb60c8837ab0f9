// Imported first by main.ts so that tracing wraps every module loaded after it.
import { startTelemetry } from '@platform/telemetry';

startTelemetry('workers');
