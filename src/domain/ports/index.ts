/**
 * The domain's ports: what the domain needs from the world, defined here and implemented by the adapters
 * (src/db, src/storage, src/mail, src/auth). Nothing in src/domain imports an adapter; src/app.ts wires them.
 */
export * from './clock';
export * from './ids';
export * from './file-store';
export * from './filesender-source';
export * from './mailer';
export * from './repositories';
export * from './unit-of-work';
export * from './virus-scanner';
export * from './nodes';
