/** sessionStorage key: where /admin goes once signed in, when a form asked for somewhere else. */
export const NEXT_AFTER_SIGN_IN = "gb_next";
