export function App() {
  return (
    <main
      style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '4rem auto', padding: '0 1rem' }}
    >
      <h1>wharf</h1>
      <p>The platform app and the developer dashboard will live here.</p>
    </main>
  );
}
