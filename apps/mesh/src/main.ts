import './instrument';
import { runService } from '@platform/service-kit';
import { meshService } from './service';

runService(meshService);
