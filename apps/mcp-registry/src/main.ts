import './instrument';
import { runService } from '@platform/service-kit';
import { mcpRegistryService } from './service';

runService(mcpRegistryService);
