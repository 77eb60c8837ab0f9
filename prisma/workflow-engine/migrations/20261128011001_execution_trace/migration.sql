-- AlterTable
ALTER TABLE "Execution" ADD COLUMN     "traceId" TEXT;
