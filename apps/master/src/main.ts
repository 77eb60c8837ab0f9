import './instrument';
import { runService } from '@platform/service-kit';
import { masterService } from './service';

runService(masterService);
