import net from 'node:net';

/**
 * A list of exact IP addresses and CIDR ranges, IPv4 and IPv6, as a test of one address (an IPv4-mapped IPv6
 * address counts as its IPv4 address). `what` names the option in the error for an entry that is no address
 * (the config check has refused those already).
 */
export function addressList(entries: readonly string[], what: string): (ip: string) => boolean {
  const list = new net.BlockList();
  for (const e of entries) {
    const [addr, bits] = e.split('/');
    const type = net.isIPv6(addr) ? 'ipv6' : 'ipv4';
    if (!net.isIP(addr)) throw new Error(`${what}: not an IP address: ${JSON.stringify(e)}`);
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return (ip) => {
    const plain = ip.startsWith('::ffff:') && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
    return net.isIP(plain) !== 0 && list.check(plain, net.isIPv6(plain) ? 'ipv6' : 'ipv4');
  };
}
