import { Home } from "./_components/home";

export default function Page() {
  return <Home />;
}
