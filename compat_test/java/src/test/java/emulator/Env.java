package emulator;

import com.azure.cosmos.ConsistencyLevel;
import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosFullTextPath;
import com.azure.cosmos.models.CosmosFullTextPolicy;
import com.azure.cosmos.models.CosmosVectorDataType;
import com.azure.cosmos.models.CosmosVectorDistanceFunction;
import com.azure.cosmos.models.CosmosVectorEmbedding;
import com.azure.cosmos.models.CosmosVectorEmbeddingPolicy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The emulator under test: its endpoint (COSMOS_ENDPOINT, set by
 * scripts/sdk-tests/with-emulator.sh), the master key, gateway-mode clients
 * and master-key signed calls to the emulator's control endpoints
 * (/_emulator/faults, /_emulator/.../split, /_emulator/clock).
 */
public final class Env {
    public static final String KEY =
        "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
    public static final ObjectMapper JSON = new ObjectMapper();

    private Env() {}

    /** The emulator's endpoint, e.g. https://127.0.0.1:8081/. */
    public static String endpoint() {
        String e = System.getProperty("cosmos.endpoint", System.getenv("COSMOS_ENDPOINT"));
        if (e == null || e.isEmpty()) {
            e = "https://127.0.0.1:8081/";
        }
        return e.endsWith("/") ? e : e + "/";
    }

    /** A builder for a gateway-mode client without endpoint discovery. */
    public static CosmosClientBuilder builder() {
        return new CosmosClientBuilder()
            .endpoint(endpoint())
            .key(KEY)
            .gatewayMode()
            .endpointDiscoveryEnabled(false)
            .consistencyLevel(ConsistencyLevel.SESSION)
            .contentResponseOnWriteEnabled(true);
    }

    public static CosmosClient client() {
        return builder().buildClient();
    }

    public static CosmosAsyncClient asyncClient() {
        return builder().buildAsyncClient();
    }

    /** A unique id for a database or container of one test. */
    public static String uid(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static final HttpClient HTTP = insecureHttp();

    private static HttpClient insecureHttp() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {new X509TrustManager() {
                public void checkClientTrusted(X509Certificate[] c, String a) {}
                public void checkServerTrusted(X509Certificate[] c, String a) {}
                public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
            }}, null);
            return HttpClient.newBuilder().sslContext(ctx).build();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The control endpoints' answer: status and parsed body (null when empty). */
    public record Answer(int status, JsonNode body) {}

    /**
     * Sends a master-key signed request to a path of the emulator (e.g.
     * /_emulator/faults/x), signed by the generic path rule, and returns the
     * answer; it fails on a status of 300 or more.
     */
    public static Answer control(String method, String path, Object body) {
        try {
            List<String> segs = Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toList();
            String type;
            String link;
            if (segs.size() % 2 == 1) {
                type = segs.get(segs.size() - 1);
                link = String.join("/", segs.subList(0, segs.size() - 1));
            } else {
                type = segs.get(segs.size() - 2);
                link = String.join("/", segs);
            }
            String date = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
                .format(ZonedDateTime.now(ZoneOffset.UTC));
            String payload = method.toLowerCase(Locale.ROOT) + "\n" + type.toLowerCase(Locale.ROOT) + "\n" + link
                + "\n" + date.toLowerCase(Locale.ROOT) + "\n\n";
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getDecoder().decode(KEY), "HmacSHA256"));
            String sig = Base64.getEncoder().encodeToString(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
            String auth = URLEncoder.encode("type=master&ver=1.0&sig=" + sig, StandardCharsets.UTF_8);
            String json = body == null ? "" : JSON.writeValueAsString(body);
            HttpRequest req = HttpRequest.newBuilder(URI.create(endpoint() + path.replaceFirst("^/", "")))
                .header("x-ms-date", date)
                .header("authorization", auth)
                .header("content-type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json))
                .build();
            HttpResponse<String> res = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() >= 300) {
                throw new IllegalStateException(method + " " + path + ": " + res.statusCode() + " " + res.body());
            }
            JsonNode node = res.body().isEmpty() ? null : JSON.readTree(res.body());
            return new Answer(res.statusCode(), node);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Fetches a path without auth (e.g. /_explorer/emulator.pem), trusting any certificate. */
    public static String fetchInsecure(String path) {
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create(endpoint() + path.replaceFirst("^/", ""))).build();
            return HTTP.send(req, HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Splits a live partition key range of a container; returns the children. */
    public static JsonNode split(String db, String coll, String rangeId) {
        return control("POST", "/_emulator/dbs/" + db + "/colls/" + coll + "/pkranges/" + rangeId + "/split",
            JSON.createObjectNode()).body();
    }

    /** Sets a fault rule (see docs/faults-and-throttling.md). */
    public static void fault(String name, Object rule) {
        control("PUT", "/_emulator/faults/" + name, rule);
    }

    /** The number of faults a rule injected. */
    public static int faultHits(String name) {
        return control("GET", "/_emulator/faults/" + name, null).body().get("hits").asInt();
    }

    public static void deleteFault(String name) {
        control("DELETE", "/_emulator/faults/" + name, null);
    }

    /**
     * Gives p the search policies the query and resource tests share: a vector
     * embedding policy on /embedding (float32, 3 dimensions, cosine) and a
     * full-text policy on /text (en-US).
     */
    static void setSearchPolicies(CosmosContainerProperties p) {
        CosmosVectorEmbedding emb = new CosmosVectorEmbedding();
        emb.setPath("/embedding");
        emb.setDataType(CosmosVectorDataType.FLOAT32);
        emb.setEmbeddingDimensions(3);
        emb.setDistanceFunction(CosmosVectorDistanceFunction.COSINE);
        CosmosVectorEmbeddingPolicy vp = new CosmosVectorEmbeddingPolicy();
        vp.setCosmosVectorEmbeddings(List.of(emb));
        p.setVectorEmbeddingPolicy(vp);
        CosmosFullTextPolicy fp = new CosmosFullTextPolicy();
        fp.setDefaultLanguage("en-US");
        CosmosFullTextPath ftp = new CosmosFullTextPath();
        ftp.setPath("/text");
        ftp.setLanguage("en-US");
        fp.setPaths(List.of(ftp));
        p.setFullTextPolicy(fp);
    }
}
