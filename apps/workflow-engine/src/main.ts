import './instrument';
import { runService } from '@platform/service-kit';
import { workflowEngineService } from './service';

runService(workflowEngineService);
