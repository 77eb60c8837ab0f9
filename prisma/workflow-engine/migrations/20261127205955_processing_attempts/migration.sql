-- AlterTable
ALTER TABLE "Execution" ADD COLUMN     "processingAttempts" INTEGER NOT NULL DEFAULT 0;
