/**
 * Keeps the screen on while uploading where the browser offers the Screen Wake Lock API (a sleeping laptop
 * stops the upload). The lock is dropped by the browser when the tab is hidden, so it is asked for again
 * when the tab comes back.
 */
interface WakeLockSentinelLike {
  release(): Promise<void>;
}

export class ScreenWakeLock {
  private lock: WakeLockSentinelLike | null = null;
  private wanted = false;
  private readonly onVisible = () => {
    if (this.wanted && document.visibilityState === 'visible') void this.acquire();
  };

  async hold(): Promise<void> {
    if (this.wanted) return;
    this.wanted = true;
    document.addEventListener('visibilitychange', this.onVisible);
    await this.acquire();
  }

  async release(): Promise<void> {
    this.wanted = false;
    document.removeEventListener('visibilitychange', this.onVisible);
    const l = this.lock;
    this.lock = null;
    await l?.release().catch(() => undefined);
  }

  private async acquire(): Promise<void> {
    const wl = (navigator as Navigator & { wakeLock?: { request(type: 'screen'): Promise<WakeLockSentinelLike> } })
      .wakeLock;
    if (!wl) return;
    try {
      this.lock = await wl.request('screen');
    } catch {
      this.lock = null; // refused (battery saver, hidden tab): uploading goes on regardless
    }
  }
}
