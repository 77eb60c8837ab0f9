import './instrument';
import { runService } from '@platform/service-kit';
import { localModelsService } from './service';

runService(localModelsService);
