/** RFC 9110 5.6.2: `token = 1*tchar`, the form of a header name, a method, an auth-scheme. */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
