import fs from 'node:fs';

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The process's resident memory now (VmRSS) or at its peak so far (VmHWM), in KiB. */
export function rssKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]);
}

/** Reads a response body to its end, keeping nothing; resolves to the bytes read. */
export async function drainBody(res: Response): Promise<number> {
  let got = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return got;
    got += value.length;
  }
}
