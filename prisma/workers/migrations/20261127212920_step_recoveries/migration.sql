-- AlterTable
ALTER TABLE "steps" ADD COLUMN     "recoveries" INTEGER NOT NULL DEFAULT 0;
