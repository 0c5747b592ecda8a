// Preloaded (node -r) into third-party tools that tests run, so that nothing they try leaves
// 127.0.0.1: a connection to any other address fails at once, as on an offline machine.
'use strict';
const net = require('node:net');
const dns = require('node:dns');
const LOCAL = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/;
const refuse = (host) =>
  Object.assign(new Error(`loopback-only: refused connection to ${host}`), { code: 'ECONNREFUSED' });
const origConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const opts =
    typeof args[0] === 'object' && args[0] !== null
      ? args[0]
      : { port: args[0], host: typeof args[1] === 'string' ? args[1] : 'localhost' };
  if (opts.path === undefined && !LOCAL.test(String(opts.host ?? 'localhost'))) {
    process.nextTick(() => this.destroy(refuse(opts.host)));
    return this;
  }
  return origConnect.apply(this, args);
};
const origLookup = dns.lookup;
dns.lookup = function (host, ...rest) {
  const cb = rest[rest.length - 1];
  if (!LOCAL.test(String(host))) return process.nextTick(() => cb(refuse(host)));
  return origLookup.call(this, host, ...rest);
};
