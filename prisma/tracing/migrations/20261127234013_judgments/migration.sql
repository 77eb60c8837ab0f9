-- LLM-as-a-judge: the model's score, verdict and reasoning beside each example's scores.

-- AlterTable
ALTER TABLE "evaluation_results" ADD COLUMN     "judgments" JSONB;
