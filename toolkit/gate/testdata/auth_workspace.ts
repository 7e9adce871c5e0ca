// For the tests of a gate with `auth:`: a temporary directory holding the
// policy file `gate.yaml` and the JWKS file `jwks.json` of `key`, which
// the policy names as `jwks: jwks.json`.

import type { SigningKey } from "../../http/_jwt_test_helpers.ts";

/** A directory with `policy` as gate.yaml and `key`'s JWKS as jwks.json; removed on dispose. */
export async function authWorkspace(
  policy: string,
  key: SigningKey,
): Promise<{ dir: string; policy: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "gate-auth-" });
  await Deno.writeTextFile(`${dir}/gate.yaml`, policy);
  await Deno.writeTextFile(
    `${dir}/jwks.json`,
    JSON.stringify({ keys: [key.jwk] }),
  );
  return {
    dir,
    policy: `${dir}/gate.yaml`,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}
