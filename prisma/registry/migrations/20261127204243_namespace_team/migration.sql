-- AlterTable
ALTER TABLE "Namespace" ADD COLUMN     "team" TEXT;
