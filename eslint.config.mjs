import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/generated/**', '**/*.js', '**/*.mjs', '.nx/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      // Apps never import apps; libraries never import services; everything through public entries.
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:web', onlyDependOnLibsWithTags: ['type:lib'] },
          ],
        },
      ],
    },
  },
  // The wall around the data: only repositories (and src/database.ts, which creates the client)
  // import a service's generated Prisma client, types included.
  {
    files: ['**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/generated/prisma', '**/generated/prisma/**'],
              message: 'Only <resource>.repository.ts files and src/database.ts import the generated Prisma client; go through a repository.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.repository.ts', '**/src/database.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
