/** Time source passed to the app, so that tests move the clock instead of waiting. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
