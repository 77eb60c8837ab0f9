import './instrument';
import { runService } from '@platform/service-kit';
import { authService } from './service';

runService(authService);
