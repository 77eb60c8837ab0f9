import './instrument';
import { runService } from '@platform/service-kit';
import { registryService } from './service';

runService(registryService);
