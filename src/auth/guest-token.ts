import { ServiceError } from '../domain/errors';
import type { Guest } from '../domain/model';
import type { Authenticator, AuthRequest, Principal } from './principal';
import type { Clock } from '../domain/services';

/** Guest token (spec: evaluated first): `vid` names an available, unexpired Guest. */
export class GuestTokenAuthenticator implements Authenticator {
  readonly name = 'guest';
  constructor(
    private readonly findByToken: (token: string) => Guest | undefined,
    private readonly clock: Clock,
  ) {}

  authenticate(req: AuthRequest): Principal | null {
    const vid = req.query.get('vid');
    if (vid === null) return null;
    const g = vid.length >= 16 && vid.length <= 128 ? this.findByToken(vid) : undefined;
    if (!g) throw new ServiceError('guest_token_invalid', 401);
    if (g.expires !== null && g.expires <= this.clock()) throw new ServiceError('guest_expired', 410);
    if (g.status !== 'available') throw new ServiceError('guest_token_invalid', 401);
    return {
      type: 'guest',
      guest: { id: g.id, token: g.token, userId: g.userId, email: g.email, options: g.options, transferOptions: g.transferOptions },
    };
  }
}
