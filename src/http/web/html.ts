// The escaping templates live in src/util so that mail (below http in the layering) renders with them too.
export * from '../../util/html';
