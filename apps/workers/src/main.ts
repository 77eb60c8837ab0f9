import './instrument';
import { runService } from '@platform/service-kit';
import { workersService } from './service';

runService(workersService);
