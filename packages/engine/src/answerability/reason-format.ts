/**
 * The reason that carries the model's numbers starts with this, so a reader can put it behind a disclosure and
 * lead with the sentence a person understands (issue 13, item 3). The website splits on it through @sandscope/api.
 * A file with no imports: the website's compiler reads it as it is.
 */
export const NUMBERS_PREFIX = 'The numbers: ';
