import './instrument';
import { runService } from '@platform/service-kit';
import { tracingService } from './service';

runService(tracingService);
