-- AlterTable
ALTER TABLE "Connection" ADD COLUMN     "owner" TEXT;

-- Connections have an owner from now on: rows from before have none, so only admins change them.

-- A name is unique among the connections that are not disconnected. Duplicates stored before
-- (parallel registrations) keep the name of the oldest, the others get their id appended.
UPDATE "Connection" AS c
   SET "name" = left(c."name", 150) || ' (' || c."id" || ')'
 WHERE c."status" <> 'disconnected'
   AND EXISTS (
         SELECT 1 FROM "Connection" AS o
          WHERE o."name" = c."name" AND o."status" <> 'disconnected'
            AND (o."createdAt", o."id") < (c."createdAt", c."id"));

CREATE UNIQUE INDEX "Connection_live_name_key" ON "Connection"("name") WHERE "status" <> 'disconnected';
