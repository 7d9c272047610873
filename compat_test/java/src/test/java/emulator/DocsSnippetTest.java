package emulator;

import org.junit.jupiter.api.Test;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/** The ```java programs of docs/connecting.md's "## Java" section, compiled and run as written. */
class DocsSnippetTest {
    static String javaSection(String file) throws Exception {
        return javaBlock(file, 0);
    }

    /** The n-th ```java block (from 0) of file's "## Java" section. */
    static String javaBlock(String file, int n) throws Exception {
        return block(file, "java", n);
    }

    /** The n-th ```lang block (from 0) of file's "## Java" section. */
    static String block(String file, String lang, int n) throws Exception {
        String text = Files.readString(Path.of("..", "..", "docs", file));
        int start = text.indexOf("\n## Java\n");
        assertTrue(start >= 0, file + " has no ## Java section");
        String section = text.substring(start + 1);
        int next = section.indexOf("\n## ", 1);
        if (next >= 0) {
            section = section.substring(0, next);
        }
        Matcher m = Pattern.compile("(?ms)^```" + lang + "\n(.*?)^```\n").matcher(section);
        for (int i = 0; i < n; i++) {
            assertTrue(m.find(), file + "'s Java section has fewer than " + (n + 1) + " ```" + lang + " blocks");
        }
        assertTrue(m.find(), file + "'s Java section has no ```" + lang + " block " + n);
        return m.group(1);
    }

    @Test
    void connectingQuickStartRunsAsWritten() throws Exception {
        assertEquals("read first\nquery found 1\n", run(javaSection("connecting.md")));
    }

    /** The direct-mode program (no .gatewayMode()) of the section's "### Direct mode". */
    @Test
    void connectingDirectModeRunsAsWritten() throws Exception {
        String code = javaBlock("connecting.md", 1);
        assertFalse(code.contains("gatewayMode"), "the direct-mode program must use the SDK's default mode");
        assertEquals("read first\nover rntbd: true\n", run(code));
    }

    /**
     * The direct-mode program run in a JVM of its own by the shell lines that follow it
     * (certificate download, keytool trust store, java), as written, in a fresh directory with
     * the SDK's jars on CLASSPATH. The lines name the emulator at 127.0.0.1:8081, where
     * make java-sdk-tests starts it by default; at another port that URL is replaced by it.
     */
    @Test
    void connectingDirectModeTrustStoreLinesRunAsWritten() throws Exception {
        String code = javaBlock("connecting.md", 1);
        String sh = block("connecting.md", "sh", 0); // the first unindented one: the list item's is indented
        assertTrue(sh.contains("keytool") && sh.contains("DirectMode.java"), sh);
        Path dir = Files.createTempDirectory("direct-mode");
        Files.writeString(dir.resolve("DirectMode.java"), code);
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder("bash", "-euo", "pipefail", "-c",
            sh.replace("https://127.0.0.1:8081/", Env.endpoint())).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("CLASSPATH", cp);
        pb.environment().put("COSMOS_ENDPOINT", Env.endpoint());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.endsWith("read first\nover rntbd: true\n"), out);
    }

    /** Compiles and runs a program's main, returning what it printed. */
    static String run(String code) throws Exception {
        Matcher cls = Pattern.compile("public class (\\w+)").matcher(code);
        assertTrue(cls.find());
        Path dir = Files.createTempDirectory("snippet");
        Path src = dir.resolve(cls.group(1) + ".java");
        Files.writeString(src, code);
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errs = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errs, "-cp", cp, "-d", dir.toString(), src.toString());
        assertEquals(0, rc, "the documented program does not compile:\n" + errs);
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, DocsSnippetTest.class.getClassLoader())) {
            Method main = loader.loadClass(cls.group(1)).getMethod("main", String[].class);
            System.setOut(new PrintStream(printed, true));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(out);
        }
        return printed.toString().replace(File.separator.equals("\\") ? "\r" : "\u0000", "");
    }
}
