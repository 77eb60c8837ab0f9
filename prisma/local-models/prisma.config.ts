import { servicePrismaConfig } from '../prisma-config';

export default servicePrismaConfig('local-models');
