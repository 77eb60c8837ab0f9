import { Alert, Button, Card, Center, Divider, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { gateway } from '@platform/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { useSession } from '../api';
import { listProviders } from '../api/providers';
import { ApiErrorAlert, fieldErrors } from '../ui';
import { safeNext } from './navigation';

export function SignInPage() {
  const { state, signIn } = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const oauthError = params.get('oauth_error');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [invalid, setFieldErrors] = useState<Record<string, string>>({});
  const providers = useQuery({ queryKey: ['console', 'providers'], queryFn: listProviders, retry: false });
  // The first frame of the form, for bench:console's time to first render.
  useEffect(() => {
    if (!performance.getEntriesByName('sign-in-rendered').length) requestAnimationFrame(() => performance.mark('sign-in-rendered'));
  }, []);

  if (state.status === 'signed-in') return <Navigate to={next} replace />;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    // The gateway's own schema of the request: what it would refuse is said here, field by field.
    const parsed = gateway.ConsoleLoginRequest.safeParse({ username, password });
    if (!parsed.success) return setFieldErrors(fieldErrors(parsed.error));
    setFieldErrors({});
    setBusy(true);
    setError(undefined);
    try {
      await signIn(parsed.data.username, parsed.data.password);
      navigate(next, { replace: true });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh" p="md" component="main">
      <Card withBorder shadow="sm" w={380} padding="lg">
        <form onSubmit={(event) => void onSubmit(event)}>
          <Stack>
            <Title order={1} size="h3">
              Sign in to the agent platform
            </Title>
            {state.status === 'signed-out' && state.reason && (
              <Text size="sm" c="dimmed">
                {state.reason}
              </Text>
            )}
            <TextInput label="Username" name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.currentTarget.value)} error={invalid.username} />
            <PasswordInput
              label="Password"
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={invalid.password}
            />
            {oauthError && !error && (
              <Alert color="red" title="Sign-in failed" role="alert">
                The identity provider&apos;s sign-in did not complete ({oauthError.slice(0, 64)}).
              </Alert>
            )}
            {error !== undefined && <ApiErrorAlert error={error} title="Sign-in failed" />}
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
            {providers.data && providers.data.length > 0 && (
              <>
                <Divider label="or" labelPosition="center" />
                {providers.data.map((provider) => (
                  <Button key={provider.name} component="a" variant="default" href={provider.url}>
                    Sign in with {provider.name}
                  </Button>
                ))}
              </>
            )}
          </Stack>
        </form>
      </Card>
    </Center>
  );
}
