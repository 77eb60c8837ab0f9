/**
 * Whether a holder of `granted` may do `required` (`<resource>:<action>`).
 * `*` grants everything; `<resource>:*` grants every action on that resource.
 */
export function hasPermission(granted: readonly string[], required: string): boolean {
  if (granted.includes('*') || granted.includes(required)) return true;
  const resource = required.split(':', 1)[0];
  return granted.includes(`${resource}:*`);
}
