import { servicePrismaConfig } from '../prisma-config';

export default servicePrismaConfig('mcp-registry');
