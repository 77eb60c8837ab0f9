/**
 * Whether granted permissions cover `required` the way the services decide (`libs/jwt`): `*` grants
 * everything, `<resource>:*` every action on the resource, otherwise an exact match.
 */
export function hasPermission(granted: readonly string[] | undefined, required: string | undefined): boolean {
  if (!required) return true;
  if (!granted) return false;
  const [resource] = required.split(':');
  return granted.some((p) => p === '*' || p === required || p === `${resource}:*`);
}
