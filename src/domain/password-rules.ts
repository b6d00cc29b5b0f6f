/** The shortest password of a local account: the CLI, the REST API and the profile page apply the same. */
export const MIN_PASSWORD_LENGTH = 8;
