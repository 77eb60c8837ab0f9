import { platformErrorFrom } from '../../api/errors';

/** A response read as it comes (a manifest's exact bytes, a streamed answer): a failure thrown as the API's error. */
export async function okResponse(response: Response): Promise<Response> {
  if (!response.ok) throw platformErrorFrom(response.status, await response.text());
  return response;
}
