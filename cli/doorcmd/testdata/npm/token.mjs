// Preloaded into the conformance suite (node --import): every request it
// sends carries the server's bearer token, set directly on the request,
// its Host and Origin left as the suite wrote them.
import { Agent, setGlobalDispatcher } from 'undici';

const token = process.env.SABLINE_TOKEN;
const withToken = (dispatch) => (opts, handler) => {
  const auth = ['authorization', `Bearer ${token}`];
  const headers = Array.isArray(opts.headers)
    ? [...opts.headers, ...auth]
    : { ...(opts.headers || {}), [auth[0]]: auth[1] };
  return dispatch({ ...opts, headers }, handler);
};
setGlobalDispatcher(new Agent().compose(withToken));
