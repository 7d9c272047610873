package io.github.cosmosemulator.junit5;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A JUnit 5 extension that gives tests a cosmos-emulator: it starts the {@code cosmos-emulator}
 * binary ({@code COSMOS_EMULATOR_BIN}, else {@code cosmos-emulator} on {@code PATH}) with
 * {@code --ephemeral} on a free port of 127.0.0.1, waits until {@code /_emulator/health}
 * answers, and stops it when the test run ends; or, when {@code COSMOS_EMULATOR_URL} is set,
 * uses the emulator there. One emulator serves every test class of a run that asks for the
 * same arguments.
 *
 * <pre>{@code
 * @RegisterExtension
 * static CosmosEmulatorExtension emulator = new CosmosEmulatorExtension();
 *
 * @Test
 * void works() {
 *     CosmosClient client = emulator.client();
 *     ...
 * }
 * }</pre>
 *
 * or {@code @ExtendWith(CosmosEmulatorExtension.class)} with a {@link CosmosClient},
 * {@link CosmosAsyncClient} or {@code CosmosEmulatorExtension} parameter.
 *
 * <p>The certificate: the extension reads the one the emulator it starts serves from the file
 * the emulator writes at start ({@code --cert-export}), or, for {@code COSMOS_EMULATOR_URL},
 * from {@code /_explorer/emulator.pem}, and trusts exactly that certificate for its own
 * requests ({@link #sslContext()}); it also writes it to a PKCS#12 trust store
 * ({@link #trustStore()}). azure-cosmos has no per-client trust setting (its TLS context
 * trusts the JVM's trust store only), so the clients this extension builds are built with the
 * SDK's own emulator switch, {@code COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED},
 * set for the time of the build only, after the extension has checked that the endpoint serves
 * the certificate it read. Nothing JVM-wide stays changed.
 */
public final class CosmosEmulatorExtension implements BeforeAllCallback, ParameterResolver {
    /** The emulator's well-known master key. */
    public static final String KEY =
        "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
    private static final String SWITCH = "COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED";
    private static final Object BUILD_LOCK = new Object();

    private final List<String> args;
    private Duration startTimeout = Duration.ofMinutes(3);
    private volatile Instance instance;

    /** An extension for an emulator with the default flags. */
    public CosmosEmulatorExtension() {
        this(new String[0]);
    }

    /** An extension for an emulator started with these extra flags, e.g. "--min-partition-ranges", "3". */
    public CosmosEmulatorExtension(String... extraArgs) {
        this.args = List.copyOf(Arrays.asList(extraArgs));
    }

    /** How long to wait for the emulator to answer its health check (default 3 minutes: a first start runs initdb). */
    public CosmosEmulatorExtension withStartTimeout(Duration timeout) {
        this.startTimeout = Objects.requireNonNull(timeout);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        running(context);
    }

    private Instance running(ExtensionContext context) {
        if (instance == null) {
            ExtensionContext.Store store = context.getRoot().getStore(ExtensionContext.Namespace.create(CosmosEmulatorExtension.class));
            instance = store.getOrComputeIfAbsent(args, k -> start(), Instance.class);
        }
        return instance;
    }

    private Instance get() {
        if (instance == null) {
            throw new IllegalStateException("the emulator is not started: register the extension on a static field "
                + "(@RegisterExtension static) or with @ExtendWith");
        }
        return instance;
    }

    /** The endpoint, e.g. https://127.0.0.1:41234/. */
    public String endpoint() {
        return get().endpoint;
    }

    /** The master key. */
    public String key() {
        return KEY;
    }

    /** A TLS context that trusts the emulator's certificate (and nothing else). */
    public SSLContext sslContext() {
        return get().ssl;
    }

    /** A PKCS#12 trust store (password "changeit") holding the emulator's certificate. */
    public Path trustStore() {
        return get().trustStore;
    }

    /** The emulator's certificate in PEM form. */
    public String certificatePem() {
        return get().pem;
    }

    /** A builder for a gateway-mode client of this emulator (endpoint discovery off). */
    public CosmosClientBuilder clientBuilder() {
        return new CosmosClientBuilder().endpoint(endpoint()).key(KEY).gatewayMode().endpointDiscoveryEnabled(false);
    }

    /** The extension's synchronous client (built once, closed when the emulator stops). */
    public CosmosClient client() {
        Instance in = get();
        synchronized (in) {
            if (in.client == null) {
                in.client = build(() -> clientBuilder().buildClient());
            }
            return in.client;
        }
    }

    /** The extension's asynchronous client (built once, closed when the emulator stops). */
    public CosmosAsyncClient asyncClient() {
        Instance in = get();
        synchronized (in) {
            if (in.asyncClient == null) {
                in.asyncClient = build(() -> clientBuilder().buildAsyncClient());
            }
            return in.asyncClient;
        }
    }

    /**
     * Builds a client of this emulator from a builder the caller configured (its endpoint should
     * be {@link #endpoint()}), with certificate validation turned off for the emulator's host by
     * the SDK's emulator switch for the time of the build.
     */
    public <T> T build(java.util.function.Supplier<T> builder) {
        synchronized (BUILD_LOCK) {
            String before = System.getProperty(SWITCH);
            System.setProperty(SWITCH, "true");
            try {
                return builder.get();
            } finally {
                if (before == null) {
                    System.clearProperty(SWITCH);
                } else {
                    System.setProperty(SWITCH, before);
                }
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        Class<?> t = p.getParameter().getType();
        return t == CosmosClient.class || t == CosmosAsyncClient.class || t == CosmosEmulatorExtension.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        running(e);
        Class<?> t = p.getParameter().getType();
        if (t == CosmosClient.class) {
            return client();
        }
        if (t == CosmosAsyncClient.class) {
            return asyncClient();
        }
        if (t == CosmosEmulatorExtension.class) {
            return this;
        }
        throw new ParameterResolutionException("unsupported parameter " + t);
    }

    // ---- the running emulator

    /** A running emulator, stopped when JUnit closes the root store (the end of the run). */
    static final class Instance implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        final String endpoint;
        final String pem;
        final SSLContext ssl;
        final Path trustStore;
        final Process process;
        final Path dir;
        CosmosClient client;
        CosmosAsyncClient asyncClient;

        Instance(String endpoint, String pem, SSLContext ssl, Path trustStore, Process process, Path dir) {
            this.endpoint = endpoint;
            this.pem = pem;
            this.ssl = ssl;
            this.trustStore = trustStore;
            this.process = process;
            this.dir = dir;
        }

        @Override
        public void close() throws Exception {
            synchronized (this) {
                if (client != null) {
                    client.close();
                }
                if (asyncClient != null) {
                    asyncClient.close();
                }
            }
            if (process != null) {
                process.destroy(); // SIGTERM: the emulator stops its PostgreSQL and removes its data
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            }
            deleteTree(dir);
        }
    }

    private Instance start() {
        try {
            Path dir = Files.createTempDirectory("cosmos-emulator-junit5");
            String url = System.getenv("COSMOS_EMULATOR_URL");
            if (url != null && !url.isBlank()) {
                String endpoint = url.endsWith("/") ? url : url + "/";
                String pem = "";
                SSLContext ssl = SSLContext.getDefault();
                Path store = null;
                if (endpoint.startsWith("https:")) {
                    pem = fetchPemTrustingOnFirstUse(endpoint);
                    ssl = sslContextFor(pem);
                    store = writeTrustStore(pem, dir);
                }
                waitHealthy(endpoint, ssl, null, dir);
                return new Instance(endpoint, pem, ssl, store, null, dir);
            }
            String bin = binary();
            IOException last = null;
            for (int attempt = 0; attempt < 3; attempt++) {
                int port = freePort();
                Path pemFile = dir.resolve("emulator.pem");
                Path log = dir.resolve("emulator.log");
                List<String> cmd = new ArrayList<>(List.of(bin, "--ephemeral", "--addr", "127.0.0.1:" + port,
                    "--protocol", "https", "--health-port", "0", "--explorer-port", "0",
                    "--cert-export", pemFile.toString()));
                cmd.addAll(args);
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
                String endpoint = "https://127.0.0.1:" + port + "/";
                try {
                    long deadline = System.nanoTime() + startTimeout.toNanos();
                    while (!Files.exists(pemFile) || Files.size(pemFile) == 0) {
                        if (!p.isAlive() || System.nanoTime() > deadline) {
                            throw new IOException("the emulator wrote no certificate");
                        }
                        Thread.sleep(50);
                    }
                    Thread.sleep(50); // the file's writer closes it right after
                    String pem = Files.readString(pemFile, StandardCharsets.US_ASCII);
                    SSLContext ssl = sslContextFor(pem);
                    waitHealthy(endpoint, ssl, p, dir);
                    return new Instance(endpoint, pem, ssl, writeTrustStore(pem, dir), p, dir);
                } catch (IOException e) {
                    p.destroyForcibly();
                    last = new IOException(e.getMessage() + "\n" + tail(log), e);
                }
            }
            throw last;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cosmos-emulator did not start: " + e.getMessage(), e);
        }
    }

    private static String binary() throws IOException {
        String bin = System.getenv("COSMOS_EMULATOR_BIN");
        if (bin != null && !bin.isBlank()) {
            if (!new File(bin).canExecute()) {
                throw new IOException("COSMOS_EMULATOR_BIN=" + bin + " is not an executable file");
            }
            return bin;
        }
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File f = new File(d, "cosmos-emulator");
            if (f.canExecute()) {
                return f.getPath();
            }
        }
        throw new IOException("no cosmos-emulator binary: set COSMOS_EMULATOR_BIN, put it on PATH "
            + "(go install github.com/cosmos-emulator/cosmos-emulator/cmd/cosmos-emulator@latest), "
            + "or set COSMOS_EMULATOR_URL to use a running emulator");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private void waitHealthy(String endpoint, SSLContext ssl, Process p, Path dir) throws Exception {
        HttpClient http = HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest req = HttpRequest.newBuilder(URI.create(endpoint + "_emulator/health")).timeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + startTimeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (p != null && !p.isAlive()) {
                throw new IOException("the emulator exited with status " + p.exitValue());
            }
            try {
                if (http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new IOException("no healthy answer from " + endpoint + "_emulator/health within " + startTimeout
            + (last == null ? "" : ": " + last));
    }

    /** Trust on first use: the PEM a running emulator serves, read over a connection that checks nothing else. */
    private static String fetchPemTrustingOnFirstUse(String endpoint) throws Exception {
        SSLContext any = SSLContext.getInstance("TLS");
        any.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
            public void checkClientTrusted(X509Certificate[] c, String a) {}
            public void checkServerTrusted(X509Certificate[] c, String a) {}
            public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
        }}, null);
        HttpClient http = HttpClient.newBuilder().sslContext(any).build();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(endpoint + "_explorer/emulator.pem")).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + endpoint + "_explorer/emulator.pem: " + r.statusCode());
        }
        return r.body();
    }

    private static KeyStore keyStoreFor(String pem) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        int i = 0;
        for (var cert : CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)))) {
            ks.setCertificateEntry("cosmos-emulator-" + i++, cert);
        }
        if (i == 0) {
            throw new IOException("no certificate in the emulator's PEM");
        }
        return ks;
    }

    private static SSLContext sslContextFor(String pem) throws Exception {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(keyStoreFor(pem));
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    private static Path writeTrustStore(String pem, Path dir) throws Exception {
        Path f = dir.resolve("truststore.p12");
        try (OutputStream out = Files.newOutputStream(f)) {
            keyStoreFor(pem).store(out, "changeit".toCharArray());
        }
        return f;
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    private static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory: left to the OS
        }
    }
}
