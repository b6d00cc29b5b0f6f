import { Errors } from '../domain/errors';
import type { Guest } from '../domain/model';
import type { Authenticator, AuthRequest, Principal } from './principal';
import type { Clock } from '../domain/ports';

/** Guest token (spec: evaluated first): `vid` names an available, unexpired Guest. */
export class GuestTokenAuthenticator implements Authenticator {
  readonly name = 'guest';
  constructor(
    private readonly findByToken: (token: string) => Promise<Guest | undefined>,
    private readonly clock: Clock,
  ) {}

  async authenticate(req: AuthRequest): Promise<Principal | null> {
    const vid = req.query.get('vid');
    if (vid === null) return null;
    const g = vid.length >= 16 && vid.length <= 128 ? await this.findByToken(vid) : undefined;
    if (!g) throw Errors.guestTokenInvalid();
    if (g.expires !== null && g.expires <= this.clock()) throw Errors.guestExpired();
    if (g.status !== 'available') throw Errors.guestTokenInvalid();
    return {
      type: 'guest',
      guest: {
        id: g.id,
        token: g.token,
        userId: g.userId,
        email: g.email,
        options: g.options,
        transferOptions: g.transferOptions,
      },
    };
  }
}
