import type { workflowEngine } from '@platform/contracts';

type Flow = workflowEngine.Flow;

export interface ShippedTemplate {
  id: string;
  name: string;
  description: string;
  category: string;
  tags: string[];
  flow: Flow;
}

const at = (x: number, y: number) => ({ x, y });

/** Runnable templates shipped with the service; `POST /workflows {templateId}` starts from one. */
export const TEMPLATES: readonly ShippedTemplate[] = [
  {
    id: 'cms-content-generation',
    name: 'Content generation into the CMS',
    description: 'Drafts an article and its title with a local model, then creates it as an unpublished CMS node.',
    category: 'content_management',
    tags: ['cms', 'llm', 'content'],
    flow: {
      nodes: [
        {
          id: 'draft',
          type: 'LLMNode',
          position: at(0, 0),
          data: { prompt: 'Write a short article about open agent platforms.' },
          retry: { enabled: true, maxAttempts: 3, backoff: 'exponential', initialDelay: 1000 },
        },
        {
          id: 'title',
          type: 'LLMNode',
          position: at(300, 0),
          data: { prompt: 'Write a one-line title for this article:\n{{draft.completion}}', maxTokens: 32 },
        },
        {
          id: 'publish',
          type: 'EntityCreate',
          position: at(600, 0),
          data: { bundle: 'article', fields: { title: '{{title.completion}}', body: { value: '{{draft.completion}}', format: 'basic_html' }, status: false } },
        },
      ],
      edges: [
        { source: 'draft', target: 'title' },
        { source: 'title', target: 'publish' },
      ],
    },
  },
  {
    id: 'vector-qa',
    name: 'Question answering over a vector collection',
    description: 'Finds the passages of a collection nearest to a question and answers from them with a local model.',
    category: 'ai_workflows',
    tags: ['rag', 'vector-search', 'llm'],
    flow: {
      nodes: [
        { id: 'question', type: 'Merge', position: at(0, 0), data: { inputs: { text: 'What does the workflow engine do?' } } },
        { id: 'retrieve', type: 'VectorSearch', position: at(300, 0), data: { query: '{{question.merged.text}}', collection: 'docs', topK: 3 } },
        {
          id: 'answer',
          type: 'LLMNode',
          position: at(600, 0),
          data: { prompt: 'Answer from this context only.\nContext:\n{{retrieve.context}}\n\nQuestion: {{question.merged.text}}' },
        },
      ],
      edges: [
        { source: 'question', target: 'retrieve' },
        { source: 'retrieve', target: 'answer' },
        { source: 'question', target: 'answer' },
      ],
    },
  },
  {
    id: 'mcp-tool-pipeline',
    name: 'MCP tool pipeline',
    description: 'Finds the MCP servers offering a tool, calls it through the MCP registry and summarises the result with a local model.',
    category: 'ai_workflows',
    tags: ['mcp', 'tools', 'llm'],
    flow: {
      nodes: [
        { id: 'servers', type: 'MCPServerQuery', position: at(0, 0), data: { capability: 'echo' } },
        {
          id: 'call',
          type: 'MCPToolCall',
          position: at(300, 0),
          data: { tool: 'echo', params: { message: 'hello from the workflow engine' } },
          retry: { enabled: true, maxAttempts: 3, backoff: 'exponential', initialDelay: 500 },
        },
        {
          id: 'summary',
          type: 'LLMNode',
          position: at(600, 0),
          data: { prompt: 'In one sentence, say what the tool answered ({{servers.total}} servers offer it):\n{{call.text}}' },
        },
      ],
      edges: [
        { source: 'servers', target: 'call' },
        { source: 'call', target: 'summary' },
      ],
    },
  },
];
