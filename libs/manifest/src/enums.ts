// Value lists of spec 1 (manifest schema 0.4.7). Where spec 1 names only some values
// (agentType, agent_class, memory_backend, formatter), the full list comes from the public
// ancestor schema in docs/reference/ossa-v0.4/agent.schema.json.

export const SCHEMA_VERSION = '0.4.7';
export const API_VERSION_PREFIX = 'std/v';

export const MANIFEST_KINDS = ['Agent', 'Task', 'Workflow', 'Flow'] as const;

export const MANIFEST_STATUSES = ['active', 'deprecated', 'revoked'] as const;

export const AGENT_TYPES = [
  'claude',
  'kagent',
  'openai',
  'langchain',
  'crewai',
  'autogen',
  'agentscope',
  'llamaindex',
  'haystack',
  'semantic-kernel',
  'vertex-ai',
  'bedrock',
  'pydantic-ai',
  'swarm',
  'custom',
] as const;

export const AGENT_KINDS = [
  'assistant',
  'orchestrator',
  'worker',
  'coordinator',
  'supervisor',
  'tool',
  'reviewer',
  'planner',
  'executor',
  'monitor',
  'analyst',
  'researcher',
  'specialist',
] as const;

export const SIGNATURE_TYPES = ['Ed25519', 'RSA-PSS', 'ECDSA', 'jwt', 'vc', 'did'] as const;
/** The signature types this library verifies; the others are accepted with a warning. */
export const VERIFIABLE_SIGNATURE_TYPES = ['Ed25519', 'RSA-PSS', 'ECDSA'] as const;

export const CATALOG_VISIBILITIES = ['public', 'private', 'internal'] as const;

export const SECURITY_TIERS = ['tier_1_read', 'tier_2_write_limited', 'tier_3_write_elevated', 'tier_4_system_admin'] as const;

export const THREAT_CATEGORIES = [
  'prompt-injection',
  'data-exfiltration',
  'privilege-escalation',
  'resource-abuse',
  'model-poisoning',
  'supply-chain',
  'denial-of-service',
  'information-disclosure',
  'unauthorized-access',
  'custom',
] as const;

export const THREAT_SEVERITIES = ['critical', 'high', 'medium', 'low', 'informational'] as const;

export const SECURITY_CAPABILITIES = [
  'filesystem-read',
  'filesystem-write',
  'network-outbound',
  'network-inbound',
  'process-spawn',
  'env-read',
  'env-write',
  'clipboard-read',
  'clipboard-write',
  'browser',
  'database-read',
  'database-write',
  'secrets-read',
  'gpu',
  'memory-extended',
  'tool-execution',
  'agent-spawn',
  'human-interaction',
] as const;

/** The interoperability protocols `protocols` declares (spec 1: MCP, A2A and ANP). */
export const MANIFEST_PROTOCOLS = ['mcp', 'a2a', 'anp'] as const;

export const SANDBOX_TYPES = ['container', 'vm', 'wasm', 'process', 'none'] as const;

export const RUNTIME_AGENT_CLASSES = ['ReActAgent', 'UserAgent', 'A2AAgent', 'RealtimeAgent', 'custom'] as const;

export const RUNTIME_CAPABILITIES = ['rl_training', 'realtime_voice', 'evaluation', 'planning', 'rag', 'parallel_tool_calls', 'meta_tools', 'tts'] as const;

export const RUNTIME_MEMORY_BACKENDS = ['in_memory', 'redis', 'sqlalchemy', 'mem0', 'reme_personal', 'reme_task', 'reme_tool'] as const;

export const RUNTIME_ORCHESTRATIONS = ['msghub', 'sequential_pipeline', 'fanout_pipeline', 'chatroom'] as const;

export const RUNTIME_FORMATTERS = ['openai', 'anthropic', 'gemini', 'dashscope', 'ollama', 'deepseek', 'a2a'] as const;
