// Proof that the generated types bite: each line below is wrong, and `tsc --noEmit` fails if
// any of them stops being an error (`@ts-expect-error` on a line without an error is itself an
// error). Never run; only type-checked.

import createClient from "openapi-fetch";
import type { paths } from "./gen/grundy.js";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:1" });

export async function wrongOnPurpose(): Promise<void> {
  // @ts-expect-error: a position is an array of numbers, not strings
  await client.POST("/v1/welter/value", { body: { position: ["1", "3"] } });
  // @ts-expect-error: `play` is "normal" or "misere"
  await client.POST("/v1/welter/value", { body: { position: [1], play: "misery" } });
  // @ts-expect-error: no such path
  await client.POST("/v1/welter/valu", { body: { position: [1] } });
  // @ts-expect-error: the sequence request needs `n`
  await client.POST("/v1/octal/sequence", { body: { code: "0.07" } });
  const { data } = await client.POST("/v1/welter/value", { body: { position: [1] } });
  if (data) {
    // @ts-expect-error: the response has no `grundy` field
    console.log(data.grundy);
    // @ts-expect-error: `value` is a number
    const s: string = data.value;
    console.log(s);
  }
}
