-- AlterTable
ALTER TABLE "Connection" ADD COLUMN     "toolsDigest" TEXT;

