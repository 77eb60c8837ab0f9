import './instrument';
import { runService } from '@platform/service-kit';
import { gatewayService } from './service';

runService(gatewayService);
