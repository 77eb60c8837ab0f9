import { Button, Group, Modal, PasswordInput, Stack, TextInput } from '@mantine/core';
import { auth } from '@platform/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { usePlatform } from '../../../api';
import { ApiErrorAlert, fieldErrors, splitList } from '../../../ui';
import { authApi, type CreateUser } from '../auth-api';

const EMPTY = { username: '', password: '', name: '', roles: 'user', permissions: '' };

export function CreateUserModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const platform = usePlatform();
  const queryClient = useQueryClient();
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useMutation({
    mutationFn: (body: CreateUser) => authApi.createUser(platform, body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['admin', 'users'] });
      setForm(EMPTY);
      onClose();
    },
  });

  const set = (field: keyof typeof EMPTY) => (event: { currentTarget: { value: string } }) => setForm({ ...form, [field]: event.currentTarget.value });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    // The service's own schema checks the form first, so its rules are not written twice.
    const parsed = auth.CreateUserRequest.safeParse({
      username: form.username,
      password: form.password,
      ...(form.name ? { name: form.name } : {}),
      roles: splitList(form.roles),
      permissions: splitList(form.permissions),
    });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    create.mutate(parsed.data);
  };

  return (
    <Modal opened={opened} onClose={onClose} title="New user">
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          <TextInput label="Username" required value={form.username} onChange={set('username')} error={errors.username} autoComplete="off" />
          <PasswordInput label="Password" required value={form.password} onChange={set('password')} error={errors.password} autoComplete="new-password" />
          <TextInput label="Name" value={form.name} onChange={set('name')} error={errors.name} />
          <TextInput label="Roles" description="Separated by commas or spaces" value={form.roles} onChange={set('roles')} error={errors.roles} />
          <TextInput
            label="Permissions"
            description="<resource>:<action>, e.g. agents:read workflows:write"
            value={form.permissions}
            onChange={set('permissions')}
            error={errors.permissions}
          />
          {create.isError && <ApiErrorAlert error={create.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
