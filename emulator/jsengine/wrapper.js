// The server-side programming model of Cosmos DB scripts, after the
// wrapper Microsoft publishes (Azure/azure-cosmosdb-js-server
// utils/DocDbWrapperScript.js; see /work/shared/server-side-js.md §5):
// getContext(), the Collection with its callbacks, __, ErrorCodes,
// console.log and the two-argument Error. It runs once in every fresh
// runtime; the native host object (engine.go, host.go) does the document
// operations. The program evaluates to install(host), which returns the
// driver the engine calls.
(function (host) {
  'use strict';
  var G = (function () { return this; })() || globalThis;
  var NativeError = G.Error;
  // JSON.stringify through the host's guard (depth bound, time bound, the
  // script's replacer applied by the guard): installed before anything
  // captures it, the wrapper's own serialisations included.
  (function () {
    var nativeStringify = JSON.stringify, guard = host.jsonReplacer;
    Object.defineProperty(JSON, 'stringify', {
      value: function stringify(value, replacer, space) { return nativeStringify(value, guard(replacer), space); },
      writable: true, configurable: true, enumerable: false
    });
  })();
  var stringify = JSON.stringify, parse = JSON.parse;
  var hasOwn = Object.prototype.hasOwnProperty;

  // Error(number, message): the Cosmos form sets err.number.
  function CosmosError(a, b) {
    var e;
    if (typeof a === 'number' && arguments.length >= 2) {
      e = new NativeError(b);
      e.number = a;
    } else if (arguments.length > 0) {
      e = new NativeError(a);
    } else {
      e = new NativeError();
    }
    return e;
  }
  CosmosError.prototype = NativeError.prototype;
  Object.defineProperty(G, 'Error', { value: CosmosError, writable: true, configurable: true, enumerable: false });
  var Error = CosmosError;

  var ErrorCodes = Object.freeze({
    BadRequest: 400, Forbidden: 403, NotFound: 404, Conflict: 409, PreconditionFailed: 412,
    RequestEntityTooLarge: 413, RetryWith: 449, InternalServerError: 500
  });

  // Host bounds: builtins that allocate in one native step are capped so
  // the runtime's interrupt and the memory watchdog can catch the rest.
  var MAX_ELEMS = host.maxElements, MAX_CHARS = host.maxChars;
  function tooBig(what) { return new RangeError('Script resource limit exceeded: ' + what + ' is too large.'); }
  (function guard() {
    var rep = String.prototype.repeat, padS = String.prototype.padStart, padE = String.prototype.padEnd;
    var fill = Array.prototype.fill, join = Array.prototype.join, from = Array.from;
    var apply = Function.prototype.apply;
    function def(o, n, f) { Object.defineProperty(o, n, { value: f, writable: true, configurable: true, enumerable: false }); }
    def(String.prototype, 'repeat', function repeat(n) {
      if (String(this).length * Number(n) > MAX_CHARS) throw tooBig('the string');
      return rep.call(this, n);
    });
    def(String.prototype, 'padStart', function padStart(n, s) {
      if (Number(n) > MAX_CHARS) throw tooBig('the string');
      return padS.call(this, n, s);
    });
    def(String.prototype, 'padEnd', function padEnd(n, s) {
      if (Number(n) > MAX_CHARS) throw tooBig('the string');
      return padE.call(this, n, s);
    });
    def(Array.prototype, 'fill', function fill_(v, s, e) {
      var len = this.length >>> 0;
      if (len > MAX_ELEMS) throw tooBig('the array');
      return fill.call(this, v, s, e);
    });
    def(Array.prototype, 'join', function join_(sep) {
      var len = this.length >>> 0;
      if (len > MAX_ELEMS || (typeof sep === 'string' && sep.length * len > MAX_CHARS)) throw tooBig('the array');
      return join.call(this, sep);
    });
    def(Array, 'from', function from_(a) {
      if (a != null && Number(a.length) > MAX_ELEMS) throw tooBig('the array');
      return from.apply(Array, arguments);
    });
    def(Function.prototype, 'apply', function apply_(t, a) {
      if (a != null && Number(a.length) > MAX_ELEMS) throw tooBig('the argument list');
      return apply.call(this, t, a);
    });
    ['ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array',
      'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'
    ].forEach(function (n) { delete G[n]; });
  })();

  // ---- console.log (stored procedures; a no-op unless logging is on)
  var console = {
    log: function () {
      if (!host.logging) return;
      var s;
      if (arguments.length === 1) {
        s = String(arguments[0]);
      } else if (arguments.length > 1) {
        if (typeof arguments[0] !== 'string') {
          throw new Error(400, 'First argument to console.log should be a string containing zero or more substitution strings.');
        }
        var args = arguments, i = 1;
        s = arguments[0].replace(/%[s%]/g, function (m) {
          if (m === '%%') return '%';
          return i < args.length ? String(args[i++]) : m;
        });
      } else {
        s = '';
      }
      host.log(s);
    }
  };

  // ---- request and response property maps
  var tooLarge = function (prop) {
    return new Error(413, 'Resulting message would be too large because of "' + prop + '". Return from script with current message and use continuation token to call the script again or modify your script.');
  };
  function checkSize(name, v) {
    if (typeof v === 'string' && v.length > host.maxMessageSize) throw tooLarge(name);
  }
  function DocDbMap(props) {
    var self = this;
    this.getValue = function (name) { return hasOwn.call(props, name) ? props[name].value : undefined; };
    this.setValue = function (name, v) {
      if (!hasOwn.call(props, name)) throw new Error(400, 'Cannot set new values: ' + name);
      if (!props[name].isWritable) throw new Error(403, 'Not a writable property: ' + name);
      checkSize(name, v);
      props[name].value = v;
      props[name].changed = true;
    };
    this.appendValue = function (name, v) {
      if (!hasOwn.call(props, name)) throw new Error(400, 'Cannot set new values: ' + name);
      if (!props[name].isWritable) throw new Error(403, 'Not a writable property: ' + name);
      var n = props[name].value + v;
      checkSize(name, n);
      props[name].value = n;
      props[name].changed = true;
    };
    Object.keys(props).forEach(function (name) {
      if (!/^[A-Za-z_$][\w$]*$/.test(name)) return;
      self['get' + name] = function () { return self.getValue(name); };
      if (props[name].isWritable) {
        self['set' + name] = function (v) { self.setValue(name, v); };
        self['append' + name] = function (v) { self.appendValue(name, v); };
      }
    });
  }

  // ---- the callback queue: operations complete at once (inside the
  // transaction) but their callbacks run later, in FIFO order, after the
  // current JavaScript stack unwinds (the engine calls next()).
  var queue = [];
  function later(f) { queue.push(f); }

  function opError(e) {
    var err = new Error(e.number, e.message);
    err.body = e.message;
    return err;
  }

  function checkArgs(name, args, min) {
    if (args.length < min) {
      throw new Error(400, 'The function "' + name + '" requires at least ' + min + ' argument(s) but was called with ' + args.length + ' argument(s).');
    }
  }
  // optsCb normalises ([options], [callback]).
  function optsCb(options, callback) {
    if (typeof options === 'function' && callback === undefined) {
      callback = options;
      options = undefined;
    }
    if (options === undefined || options === null) options = {};
    if (typeof options !== 'object') {
      throw new Error(400, 'The "options" parameter must be of type "object". Actual type is: "' + typeof options + '".');
    }
    if (callback !== undefined && callback !== null && typeof callback !== 'function') {
      throw new Error(400, 'The "callback" parameter must be of type "function". Actual type is: "' + typeof callback + '".');
    }
    return { options: options, callback: callback || undefined };
  }
  // deliver queues the callback of an operation's outcome r ({e} or {r, o}):
  // args(r) are its arguments after err. Without a callback a failure is
  // thrown (it aborts the script).
  function deliver(r, callback, args) {
    if (r.e) {
      var err = opError(r.e);
      if (callback) later(function () { callback.call(undefined, err); });
      else later(function () { throw err; });
      return;
    }
    if (callback) later(function () { callback.apply(undefined, [undefined].concat(args(r))); });
  }
  function resOf(r) { return r.r === undefined ? undefined : parse(r.r); }
  function optsOf(r) { return r.o || {}; }

  function docBody(body, options) {
    if (typeof body === 'string') {
      try { body = parse(body); } catch (e) { body = undefined; }
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new Error(400, 'The document body must be an object or a string representing a JSON-serialized object.');
    }
    if (!options.disableAutomaticIdGeneration && !body.id) {
      var c = {};
      for (var k in body) if (hasOwn.call(body, k)) c[k] = body[k];
      c.id = host.newId();
      body = c;
    }
    return stringify(body);
  }

  function Collection() {}
  Collection.prototype.getSelfLink = function () { return host.selfLink; };
  Collection.prototype.getAltLink = function () { return host.altLink; };

  function writeDoc(name) {
    return function (link, body, options, callback) {
      checkArgs(name, arguments, 2);
      var oc = optsCb(options, callback);
      var r = host.write(name, String(link), docBody(body, oc.options), oc.options);
      if (r === false) return false;
      deliver(r, oc.callback, function (r) { return [resOf(r), optsOf(r)]; });
      return true;
    };
  }
  Collection.prototype.createDocument = writeDoc('createDocument');
  Collection.prototype.upsertDocument = writeDoc('upsertDocument');
  Collection.prototype.replaceDocument = function (link, body, options, callback) {
    checkArgs('replaceDocument', arguments, 2);
    var oc = optsCb(options, callback);
    if (typeof body === 'string') {
      try { body = parse(body); } catch (e) { body = undefined; }
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new Error(400, 'The document body must be an object or a string representing a JSON-serialized object.');
    }
    var r = host.write('replaceDocument', String(link), stringify(body), oc.options);
    if (r === false) return false;
    deliver(r, oc.callback, function (r) { return [resOf(r), optsOf(r)]; });
    return true;
  };
  Collection.prototype.readDocument = function (link, options, callback) {
    checkArgs('readDocument', arguments, 1);
    var oc = optsCb(options, callback);
    var r = host.point('readDocument', String(link), oc.options);
    if (r === false) return false;
    deliver(r, oc.callback, function (r) { return [resOf(r), optsOf(r)]; });
    return true;
  };
  Collection.prototype.deleteDocument = function (link, options, callback) {
    checkArgs('deleteDocument', arguments, 1);
    var oc = optsCb(options, callback);
    var r = host.point('deleteDocument', String(link), oc.options);
    if (r === false) return false;
    deliver(r, oc.callback, function (r) { return [optsOf(r)]; });
    return true;
  };
  function feedArgs(r) { return [resOf(r), optsOf(r)]; }
  Collection.prototype.queryDocuments = function (link, query, options, callback) {
    checkArgs('queryDocuments', arguments, 2);
    var oc = optsCb(options, callback);
    if (typeof query !== 'string' && (query === null || typeof query !== 'object')) {
      throw new Error(400, 'The "filterQuery" parameter must be of type "string" or "object". Actual type is: "' + (query === null ? 'null' : typeof query) + '".');
    }
    var q = typeof query === 'string' ? stringify({ query: query }) : stringify(query);
    var r = host.query(String(link), q, oc.options);
    if (r === false) return false;
    deliver(r, oc.callback, feedArgs);
    return true;
  };
  Collection.prototype.readDocuments = function (link, options, callback) {
    checkArgs('readDocuments', arguments, 1);
    var oc = optsCb(options, callback);
    var r = host.query(String(link), stringify({ query: 'SELECT * FROM root r' }), oc.options);
    if (r === false) return false;
    deliver(r, oc.callback, feedArgs);
    return true;
  };
  ['createAttachment', 'upsertAttachment', 'replaceAttachment', 'readAttachment', 'readAttachments',
    'deleteAttachment', 'queryAttachments'].forEach(function (n) {
    Collection.prototype[n] = function () {
      throw new Error(400, 'The function "' + n + '" is not allowed in server side scripting.');
    };
  });

  // ---- the JavaScript query API (§5.6): evaluated in JS over a page of
  // the partition's documents.
  function QueryResponse(accepted) { this.isAccepted = accepted; }
  // runPipeline reads the partition's documents page by page (pageSize,
  // continuation) through the steps until the results fill a page or the
  // partition ends; the callback gets the results and the continuation of
  // the last page read.
  function runPipeline(steps, options, callback) {
    var oc = optsCb(options, callback);
    if (!oc.callback && !host.hasResponse) {
      throw new Error(400, 'The callback function must be provided for scenarios, such as pre-trigger, when response object is not available.');
    }
    var pageSize = oc.options.pageSize > 0 ? oc.options.pageSize : 100;
    var feed = [], cont = oc.options.continuation, reads = 0, r, opts = {};
    do {
      var o = {};
      for (var k in oc.options) if (hasOwn.call(oc.options, k)) o[k] = oc.options[k];
      o.continuation = cont;
      r = host.query(host.selfLink, stringify({ query: 'SELECT * FROM root r' }), o);
      if (r === false) {
        if (reads === 0) return new QueryResponse(false);
        break; // not accepted: what was read so far, with its continuation
      }
      reads++;
      if (r.e) {
        deliver(r, oc.callback, feedArgs);
        return new QueryResponse(true);
      }
      var part = resOf(r);
      for (var i = 0; i < steps.length; i++) part = steps[i](part);
      feed = feed.concat(part);
      opts = optsOf(r);
      cont = opts.continuation;
    } while (cont && feed.length < pageSize);
    if (oc.callback) {
      later(function () { oc.callback.call(undefined, undefined, feed, opts); });
    } else {
      later(function () { G.getContext().getResponse().appendBody(stringify(feed)); });
    }
    return new QueryResponse(true);
  }
  function needFn(f) {
    if (typeof f !== 'function') throw new Error(400, 'The predicate/transform function must be provided.');
  }
  var stepMakers = {
    filter: function (p) { needFn(p); return function (f) { return f.filter(function (d) { return p.call(undefined, d); }); }; },
    map: function (t) { needFn(t); return function (f) { return f.map(function (d) { return t.call(undefined, d); }); }; },
    pluck: function (n) {
      if (typeof n !== 'string' || n === '') throw new Error(400, 'The property name must be a string and cannot be empty.');
      return function (f) { return f.map(function (d) { return d == null ? undefined : d[n]; }); };
    },
    flatten: function (shallow) {
      return function (f) {
        var out = [];
        (function flat(a, deep) {
          for (var i = 0; i < a.length; i++) {
            if (Array.isArray(a[i]) && deep) flat(a[i], !shallow);
            else out.push(a[i]);
          }
        })(f, true);
        return out;
      };
    },
    sortBy: function (k) { needFn(k); return sorter(k, 1); },
    sortByDescending: function (k) { needFn(k); return sorter(k, -1); },
    unwind: function (sel, res) {
      if (typeof sel !== 'function') throw new Error(400, 'When using "unwind", "collectionSelector" must be used.');
      return function (f) {
        var out = [];
        f.forEach(function (d) {
          var inner = sel(d);
          if (!Array.isArray(inner)) return;
          inner.forEach(function (x) { out.push(res ? res(d, x) : { document: d, item: x }); });
        });
        return out;
      };
    }
  };
  function sorter(k, dir) {
    return function (f) {
      return f.slice().sort(function (a, b) {
        var x = k(a), y = k(b);
        return x < y ? -dir : x > y ? dir : 0;
      });
    };
  }
  var argCount = { filter: 1, map: 1, pluck: 1, flatten: 1, sortBy: 1, sortByDescending: 1, unwind: 2 };
  Object.keys(stepMakers).forEach(function (name) {
    Collection.prototype[name] = function () {
      var a = Array.prototype.slice.call(arguments);
      if (typeof a[0] === 'string' && name !== 'pluck') a.shift(); // an optional collection link
      var n = argCount[name];
      var stepArgs = a.slice(0, n), rest = a.slice(n);
      if (name === 'flatten' && typeof stepArgs[0] !== 'boolean') { rest = a; stepArgs = []; }
      if (name === 'unwind' && typeof stepArgs[1] !== 'function') { rest = a.slice(1); stepArgs = [a[0]]; }
      return runPipeline([stepMakers[name].apply(undefined, stepArgs)], rest[0], rest[1]);
    };
  });
  Collection.prototype.chain = function () {
    var steps = [], accepted = true;
    var chain = {};
    Object.keys(stepMakers).forEach(function (name) {
      chain[name] = function () {
        var a = Array.prototype.slice.call(arguments);
        var n = argCount[name];
        if (a.length > n && !(name === 'flatten' || name === 'unwind')) {
          throw new Error(400, 'When using "chain", options can only be provided on the call to the "value" function');
        }
        steps.push(stepMakers[name].apply(undefined, a));
        return chain;
      };
    });
    chain.value = function (options, callback) {
      if (!accepted) return new QueryResponse(false);
      return runPipeline(steps, options, callback);
    };
    return chain;
  };

  // ---- context objects
  var collection = new Collection();
  var request = host.request ? new DocDbMap(host.request) : undefined;
  var response = host.response ? new DocDbMap(host.response) : undefined;
  if (request) request.getOperationType = function () { return host.operationType; };
  var context = {
    getCollection: function () { return collection; },
    getRequest: function () { return request; },
    getResponse: function () { return response; },
    abort: function (err) {
      host.abort(describe(err));
      throw err;
    }
  };
  var shortcut = Object.create(collection);
  if (request) shortcut.request = request;
  if (response) shortcut.response = response;

  // describe renders a thrown value as the service does (§2.4): an Error
  // as "Encountered exception while executing function. Exception =
  // Error: <message>\r\nStack trace: ...", anything else verbatim.
  function describe(v) {
    if (v instanceof NativeError) {
      var s = String(v);
      var stack = typeof v.stack === 'string' ? v.stack : s;
      // the script's frames only, in the service's "   at" layout
      stack = stack.split('\n').filter(function (l) {
        return l !== '' && l.indexOf('wrapper.js') < 0 && l.indexOf('(native)') < 0;
      }).map(function (l) { return l.replace(/^\s*at /, '   at ').replace(/\(\d+\)$/, ''); }).join('\n');
      return { number: typeof v.number === 'number' ? v.number : 0, text: 'Encountered exception while executing function. Exception = ' + s + '\r\nStack trace: ' + stack };
    }
    if (typeof v === 'string') return { number: 0, text: v };
    var t;
    try { t = stringify(v); } catch (e) { t = undefined; }
    return { number: 0, text: t === undefined ? String(v) : t };
  }

  function define(name, value) {
    Object.defineProperty(G, name, { value: value, writable: false, configurable: false, enumerable: false });
  }
  define('ErrorCodes', ErrorCodes);
  if (!host.udf) { // UDFs are pure functions: no context, no collection
    define('getContext', function () { return context; });
    define('__', shortcut);
    define('console', console);
  }

  return {
    // call runs fn with the arguments in the JSON text args ("" for none).
    call: function (fn, args) {
      if (typeof fn !== 'function') {
        throw new Error(400, 'The script body must be a JavaScript function, for example "function () { ... }".');
      }
      var a = args === '' ? [] : parse(args);
      if (a === null || typeof a !== 'object') a = [];
      return fn.apply(undefined, a);
    },
    // next runs the oldest queued callback; false when none is left.
    next: function () {
      if (queue.length === 0) return false;
      queue.shift()();
      return true;
    },
    describe: describe,
    // error builds Error(number, message) whatever the script did to Error.
    error: function (n, m) { return new CosmosError(n, m); },
    // body returns the JSON text of the response body (undefined: none).
    body: function () { return response ? stringify(response.getBody()) : undefined; },
    // requestBody is the request body's JSON when the script set it.
    requestBody: function () { return request && host.request.Body.changed ? stringify(request.getBody()) : undefined; },
    // responseChanged reports whether the script set the response body.
    responseChanged: function () { return !!(response && host.response.Body.changed); },
    parse: parse,
    stringify: function (v) { return stringify(v); }
  };
})
