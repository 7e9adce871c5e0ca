// Test helper: whether a process has ended, read from /proc (Linux).

/** Whether process `pid` has ended (gone, or a zombie not yet reaped). */
export async function processEnded(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}
