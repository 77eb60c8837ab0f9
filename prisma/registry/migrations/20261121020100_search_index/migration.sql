-- Full-text search: generated tsvector column and GIN indexes (see apps/registry/README.md)
ALTER TABLE "Agent" DROP COLUMN "searchVector";

ALTER TABLE "Agent" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', coalesce("name", '') || ' ' || coalesce("displayName", '')), 'A') ||
  setweight(to_tsvector('english', coalesce("searchTerms", '')), 'B') ||
  setweight(to_tsvector('english', coalesce("summary", '') || ' ' || coalesce("description", '')), 'C')
) STORED;

CREATE INDEX "Agent_searchVector_idx" ON "Agent" USING GIN ("searchVector");
CREATE INDEX "Agent_capabilities_idx" ON "Agent" USING GIN ("capabilities");
CREATE INDEX "Agent_compliance_idx" ON "Agent" USING GIN ("compliance");
