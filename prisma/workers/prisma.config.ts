import { servicePrismaConfig } from '../prisma-config';

export default servicePrismaConfig('workers');
